// Validates rendered Kubernetes manifests against the Kubernetes schemas of the
// maintained `kubernetes-models` packages (KEDA's from @kubernetes-models/keda).
// Input on stdin: a JSON array of objects. Output on stdout: a JSON array of
// { kind, name, error } for every object that is invalid or of a kind we cannot
// validate (so nothing passes unchecked). These packages are ESM only, hence a
// separate Node process rather than an import inside jest's CommonJS runtime.
import { readFileSync } from 'node:fs';

/** apiVersion → module prefix of its models. */
function modulePath(apiVersion, kind) {
  if (apiVersion === 'keda.sh/v1alpha1') return `@kubernetes-models/keda/keda.sh/v1alpha1/${kind}`;
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : [undefined, apiVersion];
  return group ? `kubernetes-models/${group}/${version}/${kind}` : `kubernetes-models/${version}/${kind}`;
}

const objects = JSON.parse(readFileSync(0, 'utf8'));
const problems = [];
for (const obj of objects) {
  const kind = obj?.kind ?? '?';
  const name = obj?.metadata?.name ?? '?';
  let Model;
  try {
    Model = (await import(modulePath(String(obj.apiVersion), String(kind))))[kind];
  } catch {
    Model = undefined;
  }
  if (typeof Model !== 'function') {
    problems.push({ kind, name, error: `no schema for ${obj?.apiVersion} ${kind}` });
    continue;
  }
  try {
    new Model(obj).validate();
  } catch (err) {
    problems.push({ kind, name, error: String(err?.message ?? err) });
  }
}
process.stdout.write(JSON.stringify(problems));
