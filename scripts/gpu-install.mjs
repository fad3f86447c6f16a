// npm run gpu:install: installs ONNX Runtime's CUDA execution provider beside onnxruntime-node's
// binding, with the package's own installer (its postinstall step, which the install's script
// policy does not run): on Linux x64 it fetches the CUDA 12 provider libraries of the same ONNX
// Runtime version from NuGet. Windows (DirectML) and macOS (CoreML) need nothing: their providers
// are in the npm package. Then `media-index doctor` says which provider the models are given.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const root = path.join(path.dirname(require.resolve('onnxruntime-node')), '..');
const platform = `${process.platform}/${process.arch}`;
if (platform !== 'linux/x64') {
  console.log(
    `nothing to install on ${platform}: ${process.platform === 'win32' ? 'DirectML' : process.platform === 'darwin' ? 'CoreML' : 'the CPU'} comes with onnxruntime-node`,
  );
  process.exit(0);
}
const bin = path.join(root, 'bin', 'napi-v6', platform);
const cuda = path.join(bin, 'libonnxruntime_providers_cuda.so');
if (fs.existsSync(cuda)) {
  console.log(`the CUDA provider is installed: ${cuda}`);
  process.exit(0);
}
console.log('fetching the CUDA 12 execution provider of ONNX Runtime (NuGet, ≈ 300 MB)…');
const r = spawnSync(process.execPath, [path.join(root, 'script', 'install.js'), '--onnxruntime-node-install=cuda12'], { cwd: root, stdio: 'inherit' });
if (r.status !== 0 || !fs.existsSync(cuda)) {
  console.error(
    `the CUDA provider could not be installed (exit ${r.status}); the models keep running on the CPU. ` +
      'It needs the network (api.nuget.org), and at run time an NVIDIA driver with CUDA 12 and cuDNN 9.',
  );
  process.exit(1);
}
console.log(
  `installed: ${cuda}\nthe models now run on CUDA where a GPU is found (MEDIA_INDEX_DEVICE=cpu keeps them on the CPU); check with: npx media-index doctor`,
);
