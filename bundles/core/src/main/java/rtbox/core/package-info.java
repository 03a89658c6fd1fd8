/**
 * The runner and its API: the runner service that runs a probe with its JVM hiccup
 * monitor, system information and verdict, the run request and its schema
 * ({@link rtbox.core.RunSchema}, which every front end that describes a run reads with),
 * and thresholds. What a probe's own code uses (the recorder, parameter checks,
 * busy windows) is the toolkit, {@link rtbox.core.toolkit}, versioned on its own. 2.0.0:
 * those classes moved there, and Reports to rtbox.report with every other report writer;
 * in the same release, a progress listener can ask for a stop (stopRequested). 2.1.0: the one
 * reader of a run request's JSON ({@link rtbox.core.RunRequests}, with {@link rtbox.core.PolicySpec}
 * moved here from rtbox.plan), thresholds' synonyms and deprecated names, and the one verdict
 * rule's public face ({@link rtbox.core.VerdictRule}). 2.2.0: the measuring chain's self-test
 * ({@link rtbox.core.Selftest}), one rule for rtbox selftest and the appliance's MQTT selftest.
 * 2.3.0: the pWCET estimate asked in a request ({@code RunRequest.pwcet}, {@code "pwcet": true})
 * and its threshold ({@code pwcet_us} at {@code pwcet_per_hour}), judged by the one rule.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.3.0")
package rtbox.core;
