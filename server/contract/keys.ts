// /keys: not in the spec. A workspace's own API keys, managed with a write key (the settings
// screen): list without secrets, create (the key is shown once), revoke. Other workspaces' keys
// and federated access lists stay with the CLI (`media-index keys`).
import { z } from 'zod';

export const KeyView = z.object({
  key_id: z.string(),
  label: z.string().nullable(),
  scopes: z.array(z.enum(['read', 'write'])),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  /** The key this request was made with. */
  current: z.boolean(),
});

export const KeysView = z.object({ keys: z.array(KeyView) });

export const CreateKeyBody = z
  .object({
    label: z.string().trim().min(1).max(100).optional(),
    scopes: z
      .array(z.enum(['read', 'write']))
      .min(1)
      .max(2),
    /** A duration: 30d, 12h, 90m, 2w. Without it the key does not expire. */
    expires_in: z
      .string()
      .regex(/^\d{1,6}[smhdw]$/, 'use e.g. 30d, 12h, 90m, 2w')
      .optional(),
  })
  .strict();

export const CreatedKeyView = KeyView.omit({ current: true, revoked_at: true, last_used_at: true }).extend({
  /** The key itself: shown this once, stored only as a hash. */
  key: z.string(),
});
