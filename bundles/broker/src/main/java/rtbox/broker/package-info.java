/**
 * The embedded broker for other bundles: {@link rtbox.broker.LocalBroker} starts the same
 * Moquette set-up as {@code rtbox broker} (for {@code rtbox control}), and the service
 * {@link rtbox.broker.LocalBrokers} starts one as etc/rtbox.broker.cfg configures it (for
 * {@code rtbox job}, rtbox.job). 1.1.0: the service, and a started broker's password, password
 * file and subscriptions.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package rtbox.broker;
