/**
 * rtbox's MQTT protocol (docs/mqtt.md): the topic trees and ids ({@link rtbox.mqtt.protocol.Topics}),
 * the messages as typed records ({@link rtbox.mqtt.protocol.Message} and its kinds), and one
 * {@link rtbox.mqtt.protocol.Codec} that writes and reads every one of them. Both ends use it: the
 * appliance (rtbox.mqtt), {@code rtbox ctl}, {@code rtbox job}'s report and the control room, so
 * the wire shape exists once. 1.5.0: live figures ({@link rtbox.mqtt.protocol.Live}, {@link rtbox.mqtt.protocol.LiveCodec},
 * {@code up/ID/live}, {@link rtbox.mqtt.protocol.Topic.Kind#LIVE}). 1.6.0: the kernel, its preemption
 * model and the image's boot entry in the {@link rtbox.mqtt.protocol.Status}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.6.0")
package rtbox.mqtt.protocol;
