/**
 * What another bundle needs to add a command to {@code rtbox}: {@link rtbox.cli.Subcommand}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package rtbox.cli;
