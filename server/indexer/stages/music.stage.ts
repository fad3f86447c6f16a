// music: SPEC 2.7 lists it off by default and unavailable on this deployment. When asked for, it
// says so in the report rather than pretending (run: music.run.ts).
import { NO_INPUT, defineStage } from '../stage.ts';

export const musicStage = defineStage<undefined, never, 'music'>({
  name: 'music',
  version: 1,
  kinds: ['video'],
  dependsOn: ['extract', 'shots'],
  model: null,
  availability: () => ({ available: false, reason: 'unavailable on this deployment' }),
  prepare: NO_INPUT,
});
