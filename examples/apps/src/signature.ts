/**
 * The demo apps check Lattice's signature with the helper app developers install:
 * `@lattice/client/verify` (clients/typescript/src/verify.ts; the scheme, for any language, in
 * docs/app-signatures.md). Imported from its source, so the demo Worker needs no build step.
 */
export {
  DEFAULT_TOLERANCE_SECONDS,
  type SignatureCheck,
  type SignedRequest,
  signLatticeRequest,
  verifyLatticeRequest,
  verifyLatticeSignature,
} from "../../../clients/typescript/src/verify.ts";
