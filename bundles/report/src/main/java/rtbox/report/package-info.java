/**
 * Every report writer of rtbox, behind one call for a plan run's folder ({@link
 * rtbox.report.ReportSet}): a run's summary, cyclictest's --json and histogram file
 * ({@link rtbox.report.Reports}), a plan's text and JSON ({@link rtbox.report.PlanReports}),
 * JUnit XML and CSV for CI systems ({@link rtbox.report.CiReports}), and, for people,
 * a self-contained HTML page whose plots are drawn by uPlot and rtbox's plots.js, both inlined (latency histograms per CPU on log axes with the
 * thresholds drawn, all cells overlaid, spikes over time coloured by cause, and the
 * matrix table of cells), readable offline and in any browser; and {@link
 * rtbox.report.PlotAssets}, the same plot code for the control room's pages. 1.4.0: {@link
 * rtbox.report.CellFigures}, a run's figures as a verdict reads them, and {@link
 * rtbox.report.Repetitions}, a repeating plan's figures per cell as median and range.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.4.0")
package rtbox.report;
