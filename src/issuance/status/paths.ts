// Where the issuer's Status List Tokens are served: `{PUBLIC_URL}/status-lists/<list id>`, the `uri`
// each issued credential carries in `status.status_list`.
export const STATUS_LIST_ROUTE = '/status-lists/:list_id';

export const statusListPath = (listId: number): string => `/status-lists/${listId}`;
