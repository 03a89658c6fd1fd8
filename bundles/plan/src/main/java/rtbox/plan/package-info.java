/**
 * Acceptance test plans: the {@link rtbox.plan.Plans} service checks and runs a plan
 * file and reads the result journal; a run's outcome is a {@link rtbox.plan.PlanRun}
 * (its cells' {@link rtbox.plan.CellResult}s with their run reports, and the overall
 * verdict), which {@link rtbox.plan.PlanReports} writes as text and JSON and any
 * other report writer may read.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.3.0")
package rtbox.plan;
