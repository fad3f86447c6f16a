// What this machine gives the models (`media-index doctor`): the ONNX Runtime build, the execution
// providers it knows and which are installed, the one the models are given, and per stage the
// provider its last run says it ran on.
import type { Store } from '../store/index.ts';
import { env } from '../config.ts';
import { executionProvider, providerRefusal, providersPresent, type ProviderPresence } from '../ml/providers.ts';

export interface DoctorReport {
  node: string;
  platform: string;
  onnxruntime: string | null;
  providers: ProviderPresence[];
  /** MEDIA_INDEX_DEVICE: auto, cpu, cuda, dml or coreml. */
  device_setting: string;
  /** The provider the ONNX models are given now. */
  provider: string;
  /** Where that provider is not the CPU: whether it took a model when asked just now (the bundled text detector), and why not. */
  provider_check: { provider: string; works: boolean; reason: string | null } | null;
  last_runs: Array<{ stage: string; finished_at: string; provider: string | null; model: string | null }>;
}

export class DoctorService {
  constructor(private readonly store: Store) {}

  async report(): Promise<DoctorReport> {
    const { onnxruntime, providers } = providersPresent();
    const provider = executionProvider();
    // The detector's module (and the picture library under it) loads only here: the service starts without model libraries.
    const refusal = provider === 'cpu' ? null : await providerRefusal((await import('../ml/text-detect.ts')).BUNDLED_DETECTOR.file, provider);
    return {
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      onnxruntime,
      providers,
      device_setting: env.device,
      provider,
      provider_check: provider === 'cpu' ? null : { provider, works: refusal === null, reason: refusal },
      last_runs: this.store.runs.lastRunsByStage().map((r) => ({ ...r, finished_at: new Date(r.finished_at).toISOString() })),
    };
  }
}
