// What extraction produces for the stages and the API to read.
import type { Box } from '../contract/common.ts';
import type { StageFailureCode } from '../contract/stages.ts';

/** Long side of every asset's thumbnail, in pixels. */
export const THUMB_LONG_SIDE = 320;

export interface TextLine {
  text: string;
  bbox: Box;
}

export interface Passage {
  idx: number;
  text: string;
  bbox: Box;
  /** A running head or foot met on an earlier page ("54 CHAPTER 7. A MAD TEA-PARTY"): shown on its page, searched only on the first. */
  repeated?: boolean;
}

export type TextSource = 'text_layer' | 'text' | 'none';

/**
 * A page whose drawn images cover this share of it or more is a picture page (a scan is one
 * full-page image): the picture stages look at it, and extraction leaves its blankness to OCR.
 */
export const PICTURE_PAGE_AREA = 0.3;

export interface ExtractedPage {
  /** 1-based. */
  page: number;
  /** Page size in points (PDF) or in the synthetic layout's units. */
  width: number;
  height: number;
  text: string;
  passages: Passage[];
  lines: TextLine[];
  /** Render, relative to the asset folder, or null where the format has no layout to draw. */
  render: string | null;
  /** Share of the page covered by drawn images, 0..1. */
  pictureArea: number;
  /** Little, no or broken text layer: the OCR stage reads this page. */
  needsOcr: boolean;
  textSource: TextSource;
}

export interface Shot {
  idx: number;
  start_s: number;
  end_s: number;
  keyframe_s: number;
}

export interface Frame {
  timestamp: number;
  kind: 'keyframe' | 'frame';
  /** Relative to the asset folder. */
  file: string;
  width: number;
  height: number;
  shot: number | null;
}

export interface ExtractOutput {
  facts: { page_count?: number; duration_s?: number; width?: number; height?: number };
  pages: ExtractedPage[];
  shots: Shot[];
  frames: Frame[];
  audio: { file: string; duration_s: number; sample_rate: number } | null;
  thumbnail: string | null;
  details: Record<string, unknown>;
}

/**
 * Frames a video's shots pass keeps for the picture stages (ocr, faces, embeddings), in its
 * asset folder, so that the video is decoded once rather than once a stage (media/video.ts,
 * sampledFrames). They go once no picture stage of the video is left to run.
 */
export const SAMPLED_DIR = 'sampled';
/** The highest rate frames are kept at: a stage asking more decodes the video itself. */
export const MAX_SAMPLE_FPS = 2;

/** Of a video's container, what reading it through needs: its length (seconds) and whether it has sound. */
export interface VideoStreams {
  duration_s: number;
  has_audio: boolean;
  /** When the poster frame (`frame.jpg`) was taken, where it was. */
  poster_s?: number;
}

/** What the `shots` stage reads of a video: its shots, a keyframe of each, and its sound. */
export interface VideoShots {
  /** Seconds: the container's length, else the audio's, else the last cut's. */
  duration_s: number;
  shots: Shot[];
  frames: Frame[];
  audio: ExtractOutput['audio'];
  details: Record<string, unknown>;
}

/** Thrown by extractors for expected problems with the file; becomes the stage's failure reason. */
/** A file that cannot be read as its type says, with why: its stage fails with `code: message`. */
export class ExtractError extends Error {
  constructor(
    readonly code: StageFailureCode,
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
  }

  /** `code: message`, as the stage report shows it. */
  get reason(): string {
    return this.message;
  }
}
