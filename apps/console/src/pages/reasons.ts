/**
 * The reasons a check can carry (docs/reading.md, "Reasons"), in the words a reviewer reads. A code not listed here is
 * shown as it is: the API's codes are stable, and a newer one is still worth seeing.
 */
export const REASON_WORDS: Record<string, string> = {
  // the document, as read
  check_digit_mismatch: 'A check digit of the machine-readable zone does not hold: a misread, or a forged or damaged document.',
  unsupported_document: 'This kind of document is not an identity document we read (a visa, for instance).',
  unknown_issuing_state: 'The issuer is not a country (a specimen, or an organisation).',
  unknown_nationality: 'The nationality is not a country (stateless, refugee, or unspecified).',
  expired: 'The document has expired.',
  date_of_birth_invalid: 'The date of birth is in the future or more than 130 years ago.',
  document_not_found: 'No whole document was found around the machine-readable zone or barcode.',
  data_mismatch: 'What the front prints disagrees with the machine-readable zone or barcode.',
  unreadable: 'No machine-readable zone or barcode could be read (glare, blur, cut off, too small).',
  printed_data_unreadable: "Too little of the front's printed data was read to tie it to the machine-readable data.",
  // the document policy of the workflow, and the applicant
  applicant_mismatch: "The applicant's names or date of birth are not the document holder's.",
  underage: "The holder is younger than the workflow's minimum age.",
  document_type_not_accepted: 'The workflow does not accept this type of document.',
  issuer_not_accepted: 'The workflow does not accept documents of this issuer.',
  // faces
  no_face: 'No face was found on the document, or in the selfie.',
  multiple_faces: 'The selfie shows more than one face.',
  face_too_small: 'The face in the selfie is too small: too far from the camera.',
  face_not_frontal: 'The face in the selfie is turned away from the camera.',
  eyes_closed: 'The eyes in the selfie are closed.',
  blurred: 'The selfie is blurred.',
  similarity_low: "The selfie's face is not clearly the document holder's.",
  selfie_is_document_copy: "The selfie is the document's own portrait, or a picture of it.",
  selfie_seen_before: 'The same selfie was sent in another applicant’s verification of this organization.',
  // liveness
  spoof_suspected: 'The faces may be a photo of a photo, a print or a screen.',
  still_image: 'Nothing shows a live capture: a single still image, no head-turn challenge.',
  challenge_failed: 'The head turns asked for were not seen, or someone else did them.',
  // device
  automation: 'The browser was under automation control.',
  bot_score_low: 'The connection looks automated.',
  collection_absent: "The applicant's browser sent no device measurements.",
  // watchlists
  watchlist_hit: "A person on a watchlist loaded in the region matches the document's names (and date of birth): compare the hit with the document.",
  // checks the region cannot run
  provider_not_configured: 'This region has no provider configured for this check: a person decides.',
};

export function reasonWords(code: string): string {
  return REASON_WORDS[code] ?? code;
}
