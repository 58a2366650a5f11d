// The Status Types of draft-ietf-oauth-status-list (section 7.1) that the credential-status
// events leave in the issuer's Status Lists (projections/statusLists.ts) and that a verifier
// reads in anyone's list; 0x03 and up are application-specific or unregistered.
export const STATUS = { VALID: 0, INVALID: 1, SUSPENDED: 2 } as const;
