// Reads the interface of a weights file in a worker thread: an ONNX model's input and output names
// and shapes (onnxruntime parses it), or a GGUF file's architecture and sizes (its header only).
import { parentPort, workerData } from 'node:worker_threads';

/** What the app loads, written in the manifest beside a weights file. */
export type ModelInterface =
  | { format: 'onnx'; inputs: Record<string, Array<number | string>>; outputs: Record<string, Array<number | string>> }
  | { format: 'gguf'; header: Record<string, string | number> };

export type InterfaceOf =
  | { format: 'onnx'; inputs: Record<string, Array<number | string>>; outputs: Record<string, Array<number | string>> }
  | { format: 'gguf'; header: Record<string, string | number> }
  | { error: string };

async function read(file: string): Promise<InterfaceOf> {
  try {
    if (/\.gguf$/i.test(file)) {
      const { readGgufFileInfo } = await import('node-llama-cpp');
      const info = await readGgufFileInfo(file, { readTensorInfo: false });
      const arch = info.metadata.general.architecture;
      const a = info.architectureMetadata as { embedding_length?: number; block_count?: number; context_length?: number };
      const header: Record<string, string | number> = { architecture: String(arch) };
      if (a.embedding_length !== undefined) header.embedding_length = a.embedding_length;
      if (a.block_count !== undefined) header.block_count = a.block_count;
      const tokens = info.metadata.tokenizer?.ggml?.tokens;
      if (Array.isArray(tokens)) header.vocab_size = tokens.length;
      return { format: 'gguf', header };
    }
    const ort = await import('onnxruntime-node');
    const s = await ort.InferenceSession.create(file);
    const side = (meta: readonly unknown[]) =>
      Object.fromEntries(
        meta.map((x) => {
          const m = x as { name: string; shape?: Array<number | string> };
          return [m.name, m.shape ?? []];
        }),
      );
    const out: InterfaceOf = { format: 'onnx', inputs: side(s.inputMetadata), outputs: side(s.outputMetadata) };
    await s.release();
    return out;
  } catch (err) {
    return { error: err instanceof Error ? err.message.split('\n')[0] : String(err) };
  }
}

const { file } = workerData as { file: string };
parentPort?.postMessage(await read(file));
