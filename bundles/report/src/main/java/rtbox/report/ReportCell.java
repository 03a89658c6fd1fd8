package rtbox.report;

import rtbox.api.result.RunReport;

/** One named run in a report: a plan's cell ("fifo x blockio") or a single run. */
public record ReportCell(String name, RunReport report) {
}
