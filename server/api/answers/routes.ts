// /recall/{video_id}/ask (SPEC 4.6) and /chat (SPEC 4.7).
import { defineRoute, type AnyRouteSpec } from '../route.ts';
import { ChatRequest, ChatResponse, RecallParams, RecallRequest, RecallResponse } from '../../contract/answers.ts';
import { presenterFor } from '../present.ts';
import type { Services } from '../services.ts';

export function answerRoutes(s: Services): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/recall/:video_id/ask',
      summary: "Answer a question from one asset's evidence, with the moments it rests on",
      access: 'read',
      params: RecallParams,
      body: RecallRequest,
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
      summary: 'Answer over the workspace or some assets, with numbered citations',
      access: 'read',
      body: ChatRequest,
      response: ChatResponse,
      handler: async ({ auth, body, ctx }) => {
        const { citations, ...rest } = await s.answers.chat(auth, body);
        const present = presenterFor(s.signer, ctx);
        return { ...rest, citations: citations.map((c) => present.framed(c)) };
      },
    }),
  ];
}
