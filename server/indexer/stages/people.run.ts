// people, the run: plans the joins of this asset's faces (no new people are formed here).
import { planClusters } from '../../people/cluster.ts';
import { defineRunner, ok } from '../stage.ts';
import { peopleStage } from './people.stage.ts';

export const runPeople = defineRunner(peopleStage, async ({ input: { workspaceId, faces, people, named } }) => {
  const plan = planClusters(faces, people, { form: false });
  return ok(
    { faces: faces.length + named.length, named: named.length, joined: plan.joins.length, waiting: faces.length - plan.joins.length, people: people.length },
    { workspaceId, plan, named },
  );
});
