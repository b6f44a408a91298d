/** The offline verifier core: `verifyExport` and what its report is made of. */
export { verifyExport, type VerifyOptions } from './verifier.js';
export type { ExportSource } from './line-reader.js';
export type { TrustOptions } from './trust.js';
export { FINDING_CODES, type Finding, type FindingCode } from './findings.js';
export {
  PASS_DOES_NOT_ESTABLISH,
  PASS_ESTABLISHES,
  PRE_ANCHOR_QUALIFIER,
  type VerificationReport,
} from './report.js';
