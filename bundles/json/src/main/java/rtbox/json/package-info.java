/**
 * The one reader of rtbox's own JSON: {@link rtbox.json.StrictJson} parses (RFC 8259, no
 * repeated member, no NaN, a stated nesting limit, numbers kept exact as written) and
 * {@link rtbox.json.JsonFields} reads an object's members by type; every problem is a
 * {@link rtbox.json.JsonProblem} with its JSON path. Plans, run requests, the MQTT protocol
 * and the control room's API read through it. 1.1.0: {@link rtbox.json.ModelJson}, the model
 * classes (reports, plan runs, the result journal) read the same way and written without NaN.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package rtbox.json;
