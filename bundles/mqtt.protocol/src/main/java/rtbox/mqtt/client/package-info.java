/**
 * One MQTT client layer for every rtbox client of Eclipse Paho (the appliance, {@code rtbox ctl},
 * the control room and its shared ingest): the common options ({@link rtbox.mqtt.client.ClientOptions}:
 * brokers, credentials, TLS with host-name verification, timers), the sockets that send at once
 * (TCP_NODELAY) and the plain socket that shrinks an oversized PUBLISH before Paho reads it
 * ({@link rtbox.mqtt.client.OversizedPublish}), a password file, Paho's errors said, a close.
 * Paho is imported optionally: a consumer of rtbox.mqtt.protocol alone does not need it.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package rtbox.mqtt.client;
