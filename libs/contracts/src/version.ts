/**
 * The release this code is: the one version the chart (version, appVersion, so
 * the image tags), every package.json and `GET /healthz` carry, and the one the
 * event envelope names. `make release-version V=x.y.z` changes all of them;
 * `libs/contracts/src/version.test.ts` fails when they disagree.
 */
export const ASSAY_VERSION = '0.2.0';
