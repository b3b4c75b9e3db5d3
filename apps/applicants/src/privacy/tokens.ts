/** The region's erasure keys (ErasureKeys), loaded at start from the configuration. */
export const ERASURE_KEYS = Symbol('ERASURE_KEYS');
