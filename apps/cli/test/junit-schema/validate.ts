import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { validateXML } from 'xmllint-wasm';

/** This folder, found from the repository root above the working directory (jest runs there). */
function schemaDir(): string {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'pnpm-workspace.yaml'))) return path.join(dir, 'apps', 'cli', 'test', 'junit-schema');
    if (path.dirname(dir) === dir) throw new Error('run the tests from the repository');
  }
}

/** xmllint's verdict on `xml` against one of the vendored schemas (see README.md). */
export async function validateJUnit(xml: string, schema: 'jenkins-junit.xsd' | 'ant-junit.xsd'): Promise<{ valid: boolean; errors: string[] }> {
  const xsd = await readFile(path.join(schemaDir(), schema), 'utf8');
  const result = await validateXML({ xml: [{ fileName: 'report.xml', contents: xml }], schema: [{ fileName: schema, contents: xsd }] });
  return { valid: result.valid, errors: result.errors.map((e) => e.rawMessage) };
}
