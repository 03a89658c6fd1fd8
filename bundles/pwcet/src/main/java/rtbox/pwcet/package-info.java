/**
 * A probabilistic worst case (pWCET) by extreme value theory from a run's block maxima:
 * {@link rtbox.pwcet.PwcetEstimator}. The result model is rtbox.api.result's {@code Pwcet}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package rtbox.pwcet;
