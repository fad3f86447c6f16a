// music: SPEC 2.7 lists it off by default and unavailable on this deployment. When asked for, it
// says so in the report rather than pretending.
import { failed, type StageDefinition } from '../stage.ts';

export const musicStage: StageDefinition = {
  name: 'music',
  version: 1,
  kinds: ['video'],
  dependsOn: ['extract'],
  model: null,
  availability: () => ({ available: false, reason: 'unavailable on this deployment' }),
  run: async () => failed('unavailable: music recognition is not available on this deployment'),
};
