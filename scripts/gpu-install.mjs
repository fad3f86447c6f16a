// npm run gpu:install: installs ONNX Runtime's CUDA execution provider beside onnxruntime-node's
// binding. On Linux x64 it takes the provider libraries of the same ONNX Runtime version from
// NuGet, with the package's own installer (its postinstall step, which the install's script policy
// does not run), and where NuGet cannot be reached from PyPI's onnxruntime-gpu wheel of that
// version (checked against PyPI's sha256; the same build of the provider). `-- --wheel FILE` takes
// them from a wheel fetched elsewhere, for a machine without the network; `-- --pypi` skips NuGet.
// Windows (DirectML) and macOS (CoreML) need nothing: their providers are in the npm package.
// Then `media-index doctor` says which provider the models are given.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const LIBS = ['libonnxruntime_providers_cuda.so', 'libonnxruntime_providers_shared.so'];

/** Writes the provider libraries of an onnxruntime-gpu wheel into `bin`; the paths written. */
export async function installFromWheel(wheel, bin) {
  const { default: JSZip } = await import('jszip');
  const zip = await JSZip.loadAsync(fs.readFileSync(wheel));
  const found = LIBS.map((name) => zip.file(`onnxruntime/capi/${name}`));
  const missing = LIBS.filter((_, i) => !found[i]);
  if (missing.length) throw new Error(`${path.basename(wheel)} is not an onnxruntime-gpu wheel for Linux: it lacks ${missing.join(', ')}`);
  fs.mkdirSync(bin, { recursive: true });
  const written = [];
  for (const [i, name] of LIBS.entries()) {
    const to = path.join(bin, name);
    const tmp = `${to}.partial`;
    await pipeline(found[i].nodeStream('nodebuffer'), fs.createWriteStream(tmp, { mode: 0o755 }));
    fs.renameSync(tmp, to);
    written.push(to);
  }
  return written;
}

/** PyPI's onnxruntime-gpu wheel of `version` for Linux x64: its address, size and sha256. */
async function pypiWheel(version) {
  const r = await fetch('https://pypi.org/simple/onnxruntime-gpu/', { headers: { Accept: 'application/vnd.pypi.simple.v1+json' } });
  if (!r.ok) throw new Error(`PyPI answered ${r.status}`);
  const { files } = await r.json();
  const wheel = files.find((f) => f.filename.startsWith(`onnxruntime_gpu-${version}-`) && /manylinux[^-]*x86_64\.whl$/.test(f.filename) && !f.yanked);
  if (!wheel) throw new Error(`PyPI has no onnxruntime-gpu ${version} wheel for Linux x64`);
  return { url: wheel.url, size: wheel.size, sha256: wheel.hashes.sha256, name: wheel.filename };
}

/** Downloads to `to`, showing progress, and checks its sha256. */
async function download({ url, size, sha256, name }, to) {
  const r = await fetch(url);
  if (!r.ok || !r.body) throw new Error(`${name}: the download answered ${r.status}`);
  const hash = createHash('sha256');
  let got = 0;
  let shown = -1;
  const body = Readable.fromWeb(r.body);
  body.on('data', (chunk) => {
    hash.update(chunk);
    got += chunk.length;
    const pct = size ? Math.floor((got / size) * 100) : 0;
    if (pct !== shown && pct % 5 === 0) {
      shown = pct;
      process.stdout.write(`\r${name}: ${pct} % of ${Math.round((size ?? 0) / 1048576)} MiB`);
    }
  });
  await pipeline(body, fs.createWriteStream(to));
  process.stdout.write('\n');
  if (hash.digest('hex') !== sha256) throw new Error(`${name}: the sha256 does not match PyPI's`);
}

const RUN_TIME =
  'At run time it needs an NVIDIA driver for CUDA 13 (580 or later) and, on the library path (LD_LIBRARY_PATH), ' +
  "CUDA 13's cuBLAS, cuRAND, cuFFT and runtime and cuDNN 9 for CUDA 13 — from the CUDA toolkit, or " +
  '`pip install nvidia-cublas nvidia-cuda-runtime nvidia-curand nvidia-cufft nvidia-cudnn-cu13`. ' +
  'Where they are missing the models keep running on the CPU, and the log says why.';

async function main() {
  const args = process.argv.slice(2);
  const root = path.join(path.dirname(require.resolve('onnxruntime-node')), '..');
  const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
  const platform = `${process.platform}/${process.arch}`;
  if (platform !== 'linux/x64') {
    console.log(
      `nothing to install on ${platform}: ${process.platform === 'win32' ? 'DirectML' : process.platform === 'darwin' ? 'CoreML' : 'the CPU'} comes with onnxruntime-node`,
    );
    return 0;
  }
  const bin = path.join(root, 'bin', 'napi-v6', platform);
  const cuda = path.join(bin, LIBS[0]);
  const done = () =>
    console.log(
      `installed: ${cuda}\nthe models now run on CUDA where a GPU is found (MEDIA_INDEX_DEVICE=cpu keeps them on the CPU); check with: npx media-index doctor\n${RUN_TIME}`,
    );
  const wheelAt = args.indexOf('--wheel');
  if (wheelAt >= 0) {
    const wheel = args[wheelAt + 1];
    if (!wheel || !fs.statSync(wheel, { throwIfNoEntry: false })?.isFile()) {
      console.error(`--wheel needs the path of an onnxruntime-gpu ${version} wheel for Linux x64 (got ${wheel ?? 'nothing'})`);
      return 2;
    }
    if (!path.basename(wheel).startsWith(`onnxruntime_gpu-${version}-`)) {
      console.error(`${path.basename(wheel)} is not onnxruntime-gpu ${version}: the provider must be of the same version as onnxruntime-node (${version})`);
      return 2;
    }
    try {
      await installFromWheel(path.resolve(wheel), bin);
    } catch (err) {
      console.error(`the CUDA provider could not be installed: ${err.message}`);
      return 1;
    }
    done();
    return 0;
  }
  if (fs.existsSync(cuda)) {
    console.log(`the CUDA provider is installed: ${cuda}`);
    return 0;
  }
  if (!args.includes('--pypi')) {
    console.log('fetching the CUDA execution provider of ONNX Runtime from NuGet (≈ 300 MB)…');
    const r = spawnSync(process.execPath, [path.join(root, 'script', 'install.js'), '--onnxruntime-node-install=cuda12'], { cwd: root, stdio: 'inherit' });
    if (r.status === 0 && fs.existsSync(cuda)) {
      done();
      return 0;
    }
    console.log(`NuGet did not give it (exit ${r.status}); trying PyPI's onnxruntime-gpu ${version}…`);
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-gpu-install-'));
  try {
    const wheel = await pypiWheel(version);
    const file = path.join(tmp, wheel.name);
    await download(wheel, file);
    await installFromWheel(file, bin);
  } catch (err) {
    console.error(
      `the CUDA provider could not be installed: ${err.message}. The models keep running on the CPU. ` +
        `It needs the network (api.nuget.org or pypi.org), or a wheel fetched elsewhere: npm run gpu:install -- --wheel onnxruntime_gpu-${version}-…-manylinux_2_28_x86_64.whl`,
    );
    return 1;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  done();
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await main();
