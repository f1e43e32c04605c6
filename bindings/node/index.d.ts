// Types of nabla's JavaScript layer. The raw C ABI's types are generated from the manifest
// into lib/abi.generated.d.ts (nabla.native.fn has the type Functions from there).
import type { Functions, CONSTANTS, FUNCTIONS } from './lib/abi.generated';

export type DType = 'float32' | 'float64' | 'float16' | 'bfloat16' | 'int8' | 'int16' | 'int32' | 'int64' | 'uint8' | 'bool';
export type Scalar = number | boolean | bigint;
export type TensorLike = Tensor | Scalar;
export type Nested<T> = T | Nested<T>[];
export type Dims = number | number[] | null | undefined;

/** 'cpu', 'cuda' (the current CUDA device) or 'cuda:N'. */
export type Device = 'cpu' | 'cuda' | `cuda:${number}`;
export interface FactoryOptions { dtype?: DType; device?: Device; requiresGrad?: boolean }

export declare class Tensor {
  /** The nb_tensor handle (BigInt) for calls into nabla.native.fn; throws after dispose(). */
  readonly handle: bigint;
  readonly isDisposed: boolean;
  readonly ndim: number;
  readonly shape: number[];
  readonly dtype: DType;
  readonly device: string;
  readonly version: number;
  readonly T: Tensor;
  requiresGrad: boolean;
  grad: Tensor | null;
  readonly gradFn: string | null;
  readonly isLeaf: boolean;
  readonly retainsGrad: boolean;

  /** Drops this Tensor's reference now (idempotent); a FinalizationRegistry does it otherwise. */
  dispose(): void;
  size(dim?: number): number[] | number;
  stride(dim?: number): number[] | number;
  numel(): number;
  isContiguous(): boolean;
  item(): number | bigint | boolean;
  toArray(): Nested<number | bigint | boolean>;
  toTypedArray(): Float32Array | Float64Array | Uint16Array | Int8Array | Int16Array | Int32Array | BigInt64Array | Uint8Array;
  /** Shares memory with this contiguous CPU tensor (float16/bfloat16: bit patterns). */
  asTypedArray(): Float32Array | Float64Array | Uint16Array | Int8Array | Int16Array | Int32Array | BigInt64Array | Uint8Array;

  add(other: TensorLike, opts?: { alpha?: number; out?: Tensor }): Tensor;
  sub(other: TensorLike, opts?: { alpha?: number; out?: Tensor }): Tensor;
  mul(other: TensorLike, opts?: { out?: Tensor }): Tensor;
  div(other: TensorLike, opts?: { roundingMode?: 'trunc' | 'floor' | null; out?: Tensor }): Tensor;
  pow(other: TensorLike, opts?: { out?: Tensor }): Tensor;
  matmul(other: Tensor, opts?: { out?: Tensor }): Tensor;
  add_(other: TensorLike, opts?: { alpha?: number }): this;
  sub_(other: TensorLike, opts?: { alpha?: number }): this;
  mul_(other: TensorLike): this;
  div_(other: TensorLike, opts?: { roundingMode?: 'trunc' | 'floor' | null }): this;
  eq(other: TensorLike): Tensor; ne(other: TensorLike): Tensor; lt(other: TensorLike): Tensor;
  le(other: TensorLike): Tensor; gt(other: TensorLike): Tensor; ge(other: TensorLike): Tensor;
  neg(): Tensor; abs(): Tensor; exp(): Tensor; log(): Tensor; sqrt(): Tensor; tanh(): Tensor;
  sigmoid(): Tensor; relu(): Tensor; sin(): Tensor; cos(): Tensor;
  clamp(min?: number | null, max?: number | null, opts?: { out?: Tensor }): Tensor;

  sum(dim?: Dims, keepdim?: boolean, opts?: { dtype?: DType }): Tensor;
  mean(dim?: Dims, keepdim?: boolean, opts?: { dtype?: DType }): Tensor;
  prod(dim?: Dims, keepdim?: boolean, opts?: { dtype?: DType }): Tensor;
  amax(dim?: Dims, keepdim?: boolean): Tensor;
  amin(dim?: Dims, keepdim?: boolean): Tensor;
  logsumexp(dim?: Dims, keepdim?: boolean): Tensor;
  all(dim?: Dims, keepdim?: boolean): Tensor;
  any(dim?: Dims, keepdim?: boolean): Tensor;
  var(dim?: Dims, opts?: { correction?: number; keepdim?: boolean }): Tensor;
  std(dim?: Dims, opts?: { correction?: number; keepdim?: boolean }): Tensor;
  max(): Tensor;
  max(dim: number, keepdim?: boolean): { values: Tensor; indices: Tensor };
  min(): Tensor;
  min(dim: number, keepdim?: boolean): { values: Tensor; indices: Tensor };
  argmax(dim?: number, keepdim?: boolean): Tensor;
  argmin(dim?: number, keepdim?: boolean): Tensor;
  softmax(dim: number, opts?: { dtype?: DType }): Tensor;
  logSoftmax(dim: number, opts?: { dtype?: DType }): Tensor;
  cumsum(dim: number, opts?: { dtype?: DType }): Tensor;
  norm(p?: number, dim?: Dims, keepdim?: boolean): Tensor;

  view(...shape: number[] | [number[]]): Tensor;
  reshape(...shape: number[] | [number[]]): Tensor;
  expand(...shape: number[] | [number[]]): Tensor;
  permute(...dims: number[] | [number[]]): Tensor;
  transpose(dim0: number, dim1: number): Tensor;
  t(): Tensor;
  unsqueeze(dim: number): Tensor;
  squeeze(dim?: Dims): Tensor;
  flatten(startDim?: number, endDim?: number): Tensor;
  narrow(dim: number, start: number, length: number): Tensor;
  select(dim: number, index: number): Tensor;
  slice(dim: number, start?: number, end?: number, step?: number): Tensor;
  contiguous(): Tensor;
  clone(): Tensor;
  to(dtype: DType, opts?: { copy?: boolean }): Tensor;
  to(device: Device, dtype?: DType, opts?: { copy?: boolean }): Tensor;
  to(opts: { device?: Device; dtype?: DType; copy?: boolean }): Tensor;
  /** A copy on the CUDA device (default: the current one); this tensor when already there. */
  cuda(index?: number): Tensor;
  cpu(): Tensor;
  float(): Tensor; double(): Tensor; half(): Tensor; long(): Tensor; int(): Tensor; bool(): Tensor;
  copy_(src: Tensor): this;
  fill_(value: TensorLike): this;

  backward(gradient?: Tensor | null, opts?: { retainGraph?: boolean; createGraph?: boolean }): void;
  requiresGrad_(requiresGrad?: boolean): this;
  retainGrad(): this;
  detach(): Tensor;
  detach_(): this;
  /** hook(grad) sees the gradient during backward; a returned Tensor replaces it. */
  registerHook(hook: (grad: Tensor) => Tensor | void): { id: bigint; remove(): void };

  /** Every other op of the manifest, with its C argument order (see lib/ops.js). */
  [op: string]: unknown;
}

/** A failed nabla call: status code, its name and the C message (which names the op). */
/** Writes {name: Tensor} and string metadata to a safetensors file (the C ABI's nb_save). */
export declare function save(tensors: Record<string, Tensor>, path: string, metadata?: Record<string, string>): void;
/** Reads a safetensors file (nb_load): its tensors by name, in the file's order. */
export declare function load(path: string): Record<string, Tensor>;
export declare function load(path: string, options: { metadata: true }): { tensors: Record<string, Tensor>; metadata: Record<string, string> };

export declare class NablaError extends Error {
  readonly status: number;
  readonly statusName: string;
  readonly cMessage: string;
}
export declare class InvalidArgumentError extends NablaError {}
export declare class ShapeError extends NablaError {}
export declare class DtypeError extends NablaError {}
export declare class DeviceError extends NablaError {}
export declare class IndexError extends NablaError {}
export declare class OutOfMemoryError extends NablaError {}
export declare class NotImplementedError extends NablaError {}
export declare class AutogradError extends NablaError {}
export declare class BackendError extends NablaError {}
export declare class AbiVersionError extends NablaError {}
export declare class InternalError extends NablaError {}

export declare function tensor(data: Nested<Scalar> | ArrayBufferView, opts?: FactoryOptions & { shape?: number[] }): Tensor;
export declare function fromTypedArray(data: ArrayBufferView, shape?: number[], opts?: FactoryOptions): Tensor;
export declare function zeros(...shape: Array<number | number[] | FactoryOptions>): Tensor;
export declare function ones(...shape: Array<number | number[] | FactoryOptions>): Tensor;
export declare function empty(...shape: Array<number | number[] | FactoryOptions>): Tensor;
export declare function rand(...shape: Array<number | number[] | FactoryOptions>): Tensor;
export declare function randn(...shape: Array<number | number[] | FactoryOptions>): Tensor;
export declare function full(shape: number[], value: Scalar, opts?: FactoryOptions): Tensor;
export declare function arange(end: number, opts?: { dtype?: DType; device?: Device }): Tensor;
export declare function arange(start: number, end: number, step?: number, opts?: { dtype?: DType; device?: Device }): Tensor;
export declare function linspace(start: number, end: number, steps: number, opts?: { dtype?: DType; device?: Device }): Tensor;
export declare function eye(n: number, m?: number, opts?: { dtype?: DType; device?: Device }): Tensor;
export declare function randint(low: number, high: number, shape: number[], opts?: { dtype?: DType; device?: Device }): Tensor;
export declare function manualSeed(seed: number | bigint): void;
export declare function cat(tensors: Tensor[], dim?: number, opts?: { out?: Tensor }): Tensor;
export declare function stack(tensors: Tensor[], dim?: number, opts?: { out?: Tensor }): Tensor;
export declare function where(condition: Tensor, a: TensorLike, b: TensorLike): Tensor;
export declare function add(a: TensorLike, b: TensorLike, opts?: { alpha?: number; out?: Tensor }): Tensor;
export declare function mul(a: TensorLike, b: TensorLike, opts?: { out?: Tensor }): Tensor;
export declare function matmul(a: Tensor, b: Tensor, opts?: { out?: Tensor }): Tensor;

/** Runs f and disposes every tensor made during it except those it returns. */
export declare function tidy<T>(f: () => T): T;
export declare function backward(outputs: Tensor | Tensor[], gradOutputs?: Tensor | Tensor[] | null, opts?: { retainGraph?: boolean; createGraph?: boolean }): void;
export declare function noGrad<T>(body: () => T): T;
export declare function enableGrad<T>(body: () => T): T;
export declare function isGradEnabled(): boolean;
export declare function setGradEnabled(enabled: boolean): boolean;
export declare const autograd: {
  backward: typeof backward;
  grad(outputs: Tensor | Tensor[], inputs: Tensor | Tensor[], opts?: { gradOutputs?: Tensor | Tensor[] | null; retainGraph?: boolean; createGraph?: boolean; allowUnused?: boolean }): Array<Tensor | null>;
};
export declare const nn: {
  functional: {
    linear(x: Tensor, weight: Tensor, bias?: Tensor | null): Tensor;
    relu(x: Tensor): Tensor; gelu(x: Tensor, opts?: { approximate?: 'none' | 'tanh' }): Tensor;
    sigmoid(x: Tensor): Tensor; tanh(x: Tensor): Tensor; silu(x: Tensor): Tensor;
    leakyRelu(x: Tensor, negativeSlope?: number): Tensor;
    softmax(x: Tensor, dim: number): Tensor; logSoftmax(x: Tensor, dim: number): Tensor;
    dropout(x: Tensor, p?: number, training?: boolean): Tensor;
    crossEntropy(input: Tensor, target: Tensor, opts?: { weight?: Tensor | null; ignoreIndex?: number; reduction?: 'none' | 'mean' | 'sum'; labelSmoothing?: number }): Tensor;
    nllLoss(input: Tensor, target: Tensor, opts?: { weight?: Tensor | null; ignoreIndex?: number; reduction?: 'none' | 'mean' | 'sum' }): Tensor;
    mseLoss(input: Tensor, target: Tensor, opts?: { reduction?: 'none' | 'mean' | 'sum' }): Tensor;
    l1Loss(input: Tensor, target: Tensor, opts?: { reduction?: 'none' | 'mean' | 'sum' }): Tensor;
    oneHot(x: Tensor, numClasses?: number): Tensor;
  };
};
/** Every op of the manifest in its C argument order: ops.add(a, b, alpha, {out}), ops.maxPool2d(...). */
export declare const ops: { [name: string]: (...args: unknown[]) => unknown };
export declare const native: {
  fn: Functions;
  C: { [name: string]: number };
  abi: { CONSTANTS: typeof CONSTANTS; FUNCTIONS: typeof FUNCTIONS };
  koffi: unknown;
  libraryPath: string;
};
export declare const version: string;
export declare function memoryStats(device?: Device): import('./lib/abi.generated').nb_memory_stats;
export declare const cuda: {
  isAvailable(): boolean;
  deviceCount(): number;
  /** Why CUDA is not available (null when it is). */
  unavailableReason(): string | null;
  /** Waits for the work queued on the device. */
  synchronize(device?: Device): void;
};
