/**
 * Acceptance test plans: the {@link rtbox.plan.Plans} service checks and runs a plan
 * file and reads the result journal; a run's outcome is a {@link rtbox.plan.PlanRun}
 * (its cells' {@link rtbox.plan.CellResult}s with their run reports, and the overall
 * verdict), which rtbox.report writes as text, JSON, CI files and HTML. 2.0.0: the
 * report writers (PlanReports, CiReports) moved to rtbox.report. 2.1.0: Plans.damaged(), the
 * journal's damage without its runs. 2.2.0: the journal bounded in size (Plans.hold keeps a run),
 * read a page of summaries or one run at a time (Plans.page, Plans.run). 2.3.0: Plans.notes, the
 * deprecated names a plan uses (rtbox.core's RunRequests reads each cell). 2.4.0: Plans.Listener.measuring,
 * a cell's measuring threads for live figures.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.4.0")
package rtbox.plan;
