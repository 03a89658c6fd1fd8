/**
 * Reports for people: a self-contained HTML page with inline SVG plots (latency
 * histograms per CPU on a log-scale count axis, spikes over time coloured by cause,
 * and the matrix table of cells), readable offline and in any browser.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package rtbox.report;
