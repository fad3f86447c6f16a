// Every model the stages and search use, named once. The optional models' ids are the names of
// their entries in models/manifest.json (files, checksums, licences); the bundled ones ship with
// the npm install and are described here for reports. Data only: nothing here loads a model.

/** Sentence encoder: vectors of passages, transcript windows, text seen and captions. */
export const TEXT_EMBEDDING_MODEL = 'all-MiniLM-L6-v2';
/** Image-text model: vectors of pictures and of descriptions; zero-shot scene labels. */
export const PICTURE_EMBEDDING_MODEL = 'clip-vit-base-patch32';
/** Open-vocabulary detector for phrases outside the COCO classes. */
export const OPEN_VOCABULARY_MODEL = 'owlv2-base-patch16';
/** Speech to text, the multilingual ones smallest first, then English-only (the first installed is used). */
export const TRANSCRIPT_MODELS = ['whisper-tiny', 'whisper-base', 'whisper-tiny.en'] as const;
export const CAPTION_MODEL = 'vit-gpt2-image-captioning';
export const SOUND_MODEL = 'ast-audioset';
/** Text in photos and video frames (PP-OCRv6; tesseract without it). */
export const PHOTO_TEXT_MODEL = 'ppocr-v6';
/** Voice embeddings for telling speakers apart (the first installed is used). */
export const SPEAKER_MODELS = ['wespeaker-voxceleb-resnet34', 'ge2e-resemblyzer'] as const;

/** The kinds of evidence each embedding model's vectors hold. */
export const EMBEDDED_MODALITIES = {
  [TEXT_EMBEDDING_MODEL]: ['passage', 'transcript', 'ocr', 'caption'],
  [PICTURE_EMBEDDING_MODEL]: ['picture'],
} as const;

/** The models that ship with the install, as the stages report them. */
export const BUNDLED_MODELS = {
  faces: 'BlazeFace + FaceMesh + FaceRes + emotion (Human, bundled)',
  objects: 'CenterNet COCO (Human, bundled)',
  ocr: 'tesseract LSTM eng+hin (bundled)',
  vad: 'Silero VAD (bundled)',
} as const;
