/**
 * {@code rtbox ctl} as a service ({@link rtbox.ctl.Ctl}), for the commands that run it as a step.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package rtbox.ctl;
