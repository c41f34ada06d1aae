export default async function globalTeardown(): Promise<void> {
  await globalThis.__ASSAY_PG__?.stop();
}
