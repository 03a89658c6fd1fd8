/**
 * The embedded broker for other bundles of the control room: {@link rtbox.broker.LocalBroker}
 * starts the same Moquette set-up as {@code rtbox broker} and {@code rtbox job}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package rtbox.broker;
