// /recall/{video_id}/ask (SPEC 4.6) and /chat (SPEC 4.7).
import { PassThrough } from 'node:stream';
import { defineRawRoute, defineRoute, type AnyRouteSpec } from '../route.ts';
import { AppError } from '../../errors.ts';
import { ChatRequest, ChatResponse, RecallParams, RecallRequest, RecallResponse } from '../../contract/answers.ts';
import { presenterFor } from '../present.ts';
import type { Services } from '../../services/index.ts';

export function answerRoutes(s: Services): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/recall/:video_id/ask',
      operationId: 'recall',
      summary: "Answer a question from one asset's evidence, with the moments it rests on",
      access: 'read',
      params: RecallParams,
      body: RecallRequest,
      example: { query: 'when does the rabbit look at its watch?' },
      response: RecallResponse,
      handler: async ({ auth, params, body, ctx }) => {
        const { moments, ...rest } = await s.answers.recall(auth, params.video_id, body.query);
        const present = presenterFor(s.signer, ctx);
        return { ...rest, moments: moments.map((m) => present.framed(m)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/chat',
      operationId: 'chat',
      summary: 'Answer over the workspace or some assets, with numbered citations',
      access: 'read',
      body: ChatRequest,
      example: { query: 'what is written on the whiteboard?', max_tokens: 256 },
      response: ChatResponse,
      handler: async ({ auth, body, ctx }) => {
        const { citations, ...rest } = await s.answers.chat(auth, body);
        const present = presenterFor(s.signer, ctx);
        return { ...rest, citations: citations.map((c) => present.framed(c)) };
      },
    }),
    defineRawRoute({
      method: 'post',
      path: '/chat/stream',
      operationId: 'chatStream',
      summary:
        'As POST /chat, answered as server-sent events: with a language model, `evidence` (the moments it is given, numbered as it may cite them) and `chunk` events ({text}) as it writes; then one `answer` event (the data of POST /chat) or `error`. Closing the connection stops the answer',
      access: 'read',
      body: ChatRequest,
      example: { query: 'what is written on the whiteboard?', max_tokens: 256 },
      produces: ['text/event-stream'],
      handler: async ({ auth, body, ctx }) => {
        s.answers.checkChat(auth, body); // a bad request is refused before the stream starts
        const out = new PassThrough();
        const send = (event: string, data: unknown) => out.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        const stop = new AbortController();
        // The client went away (a stop button, a closed page): the model stops writing.
        ctx.res.once('close', () => {
          if (!ctx.res.writableFinished) stop.abort();
        });
        ctx.status = 200;
        ctx.type = 'text/event-stream';
        ctx.set('Cache-Control', 'no-store');
        ctx.set('X-Accel-Buffering', 'no');
        ctx.body = out;
        void s.answers
          .chat(auth, body, {
            onEvidence: (given) => {
              const present = presenterFor(s.signer, ctx);
              send('evidence', { moments: given.map((g) => present.framed(g)) });
            },
            onChunk: (text) => send('chunk', { text }),
            signal: stop.signal,
          })
          .then(({ citations, ...rest }) => {
            const present = presenterFor(s.signer, ctx);
            send('answer', { ...rest, citations: citations.map((c) => present.framed(c)) });
          })
          .catch((err: unknown) => {
            const e = err instanceof AppError ? err : null;
            send('error', { code: e?.code ?? 'internal_error', message: e?.message ?? 'The answer could not be written.' });
            if (!e) s.log(`chat stream: ${err instanceof Error ? err.message : String(err)}`);
          })
          .finally(() => out.end());
      },
    }),
  ];
}
