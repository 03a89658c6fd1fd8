/**
 * The contracts that every rtbox bundle implements or calls: a {@link rtbox.api.Probe}
 * measures, a {@link rtbox.api.Workload} loads the machine, a {@link rtbox.api.Policy}
 * changes scheduling settings and restores them. Implementations are found as OSGi
 * services by their name property, so a new bundle version replaces an old one
 * without refreshing this package.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.3.0")
package rtbox.api;
