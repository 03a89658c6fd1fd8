/**
 * Sets of runs, not pairs: whether a set B of runs of a plan is worse than a set A beyond the
 * runs' own spread ({@link rtbox.regression.Regression}), per cell and figure, for every front
 * end (rtbox compare, the control room).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package rtbox.regression;
