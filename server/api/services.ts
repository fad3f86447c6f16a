// The services the routes call, built once per server.
import type { Config } from '../config.ts';
import type { AuthService } from '../services/auth.service.ts';
import type { AssetsService } from '../services/assets.service.ts';
import type { IndexOptionsService } from '../services/index-options.service.ts';
import type { EnginesService } from '../services/engines.service.ts';
import type { ReadsService } from '../services/reads.service.ts';
import type { SearchService } from '../services/search.service.ts';
import type { PeopleService } from '../services/people.service.ts';
import type { LibrariesService } from '../services/libraries.service.ts';
import type { AnswersService } from '../services/answers.service.ts';
import type { WorkspacesService } from '../services/workspaces.service.ts';
import type { ModelPulls } from '../services/model-pulls.service.ts';
import type { UrlSigner } from '../services/signing.service.ts';

export interface Services {
  config: Config;
  auth: AuthService;
  assets: AssetsService;
  indexOptions: IndexOptionsService;
  engines: EnginesService;
  reads: ReadsService;
  search: SearchService;
  people: PeopleService;
  libraries: LibrariesService;
  answers: AnswersService;
  workspaces: WorkspacesService;
  modelPulls: ModelPulls;
  /** Signs the URLs of stored files (frame_url, thumbnail_url). */
  signer: UrlSigner;
  version: string;
  log: (msg: string) => void;
}
