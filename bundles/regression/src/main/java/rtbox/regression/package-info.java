/**
 * Sets of runs, not pairs: whether a set B of runs of a plan is worse than a set A beyond the
 * runs' own spread ({@link rtbox.regression.Regression}), per cell and figure, for every front
 * end (rtbox compare, the control room). 1.1.0: a repeating plan's report as one run per repetition
 * (RunFigures.repetitions, allFromJson); the comparison as JSON (ComparisonJson), the control room's answer.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package rtbox.regression;
