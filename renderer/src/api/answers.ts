// Questions answered from the index (POST /chat/stream): the evidence, the text as it is written, the answer.
import { postEvents } from './client.ts';
import type { z } from 'zod';
import type { ChatResponse, Evidence } from '../../../server/contract/answers.ts';

export type Answer = z.infer<typeof ChatResponse>;
export type Moment = Evidence;

export interface AskHandlers {
  evidence(moments: Moment[]): void;
  chunk(text: string): void;
  answer(a: Answer): void;
  error(message: string): void;
}

export function ask(query: string, on: AskHandlers, signal: AbortSignal): Promise<void> {
  return postEvents(
    '/chat/stream',
    { query, max_tokens: 256 },
    (event, data) => {
      if (event === 'evidence') on.evidence((data as { moments: Moment[] }).moments);
      else if (event === 'chunk') on.chunk((data as { text: string }).text);
      else if (event === 'answer') on.answer(data as Answer);
      else if (event === 'error') on.error((data as { message: string }).message);
    },
    signal,
  );
}
