import type { Mode } from '@verity/keys';

export interface Address {
  line1?: string;
  line2?: string;
  city?: string;
  region?: string;
  postal_code?: string;
  country?: string;
}

/**
 * An applicant as read. After an erasure (docs/privacy.md) it keeps its id, mode and creation time, `erased` is
 * true and every personal field is null.
 */
export interface Applicant {
  id: string;
  object: 'applicant';
  mode: Mode;
  family_name: string | null;
  given_names: string[] | null;
  name_suffix: string | null;
  email: string | null;
  phone: string | null;
  date_of_birth: string | null;
  address: Address | null;
  external_id: string | null;
  erased: boolean;
  created_at: string;
}

/** Raw list parameters as received: validated by the owning service. */
export interface ListQuery {
  limit?: unknown;
  cursor?: unknown;
  [filter: string]: unknown;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
