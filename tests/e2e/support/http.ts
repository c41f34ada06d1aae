// The e2e suites share the HTTP helpers of @assay/testing.
export { bearer, call, rawGet, type Reply } from '@assay/testing';
