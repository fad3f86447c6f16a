// Questions answered from the index (POST /chat/stream): the evidence, the text as it is written, the answer.
import { postEvents, type Data } from './client.ts';

/** The `answer` event: the data of POST /chat. */
export type Answer = Data<'/api/v1/chat', 'post'>;
export type Moment = Answer['citations'][number];

export interface AskHandlers {
  evidence(moments: Moment[]): void;
  chunk(text: string): void;
  answer(a: Answer): void;
  error(message: string): void;
}

export function ask(query: string, on: AskHandlers, signal: AbortSignal): Promise<void> {
  return postEvents(
    '/api/v1/chat/stream',
    { query, max_tokens: 256 },
    // The events' payloads, as the operation's description gives them (the document types the stream as text).
    (event, data) => {
      if (event === 'evidence') on.evidence((data as { moments: Moment[] }).moments);
      else if (event === 'chunk') on.chunk((data as { text: string }).text);
      else if (event === 'answer') on.answer(data as Answer);
      else if (event === 'error') on.error((data as { message: string }).message);
    },
    signal,
  );
}
