/**
 * What another bundle of the control room needs to know of rtbox.control: where its
 * HTTP application lives on the OSGi Servlet Whiteboard (docs/control-api.md).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package rtbox.control;
