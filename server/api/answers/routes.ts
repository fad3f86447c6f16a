// /recall/{video_id}/ask (SPEC 4.6) and /chat (SPEC 4.7).
import { defineRoute, type AnyRouteSpec } from '../route.ts';
import { ChatRequest, ChatResponse, RecallParams, RecallRequest, RecallResponse } from '../../contract/answers.ts';
import { originOf } from '../context.ts';
import type { Services } from '../services.ts';

export function answerRoutes(s: Services): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/recall/:video_id/ask',
      summary: 'Answer a question from one asset\'s evidence, with the moments it rests on',
      access: 'read',
      params: RecallParams,
      body: RecallRequest,
      response: RecallResponse,
      handler: ({ auth, params, body, ctx }) => s.answers.recall(auth, params.video_id, body.query, originOf(ctx)),
    }),
    defineRoute({
      method: 'post',
      path: '/chat',
      summary: 'Answer over the workspace or some assets, with numbered citations',
      access: 'read',
      body: ChatRequest,
      response: ChatResponse,
      handler: ({ auth, body, ctx }) => s.answers.chat(auth, body, originOf(ctx)),
    }),
  ];
}
