// The client package's own generated service definitions and messages, which the double is built on.
import { createRequire } from 'node:module';
import type * as StreamsPbModule from '@eventstore/db-client/generated/streams_pb.js';
import type * as StreamsGrpcModule from '@eventstore/db-client/generated/streams_grpc_pb.js';
import type * as SharedPbModule from '@eventstore/db-client/generated/shared_pb.js';
import type * as StatusPbModule from '@eventstore/db-client/generated/status_pb.js';
import type * as CodePbModule from '@eventstore/db-client/generated/code_pb.js';
import type * as FeaturesPbModule from '@eventstore/db-client/generated/serverfeatures_pb.js';
import type * as FeaturesGrpcModule from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js';
import type * as AnyPbModule from 'google-protobuf/google/protobuf/any_pb.js';
import type * as EmptyPbModule from 'google-protobuf/google/protobuf/empty_pb.js';

// The generated modules are CommonJS objects filled in at run time, which ESM named imports cannot
// see; requiring them also guarantees the very instances the client uses.
const require = createRequire(import.meta.url);
export const streamsPb = require('@eventstore/db-client/generated/streams_pb.js') as typeof StreamsPbModule;
export const streamsGrpc = require('@eventstore/db-client/generated/streams_grpc_pb.js') as typeof StreamsGrpcModule;
export const sharedPb = require('@eventstore/db-client/generated/shared_pb.js') as typeof SharedPbModule;
export const statusPb = require('@eventstore/db-client/generated/status_pb.js') as typeof StatusPbModule;
export const { Code } = require('@eventstore/db-client/generated/code_pb.js') as typeof CodePbModule;
export const featuresPb = require('@eventstore/db-client/generated/serverfeatures_pb.js') as typeof FeaturesPbModule;
export const featuresGrpc = require('@eventstore/db-client/generated/serverfeatures_grpc_pb.js') as typeof FeaturesGrpcModule;
export const anyPb = require('google-protobuf/google/protobuf/any_pb.js') as typeof AnyPbModule;
export const emptyPb = require('google-protobuf/google/protobuf/empty_pb.js') as typeof EmptyPbModule;

export type { StreamsPbModule, SharedPbModule, StatusPbModule, CodePbModule, FeaturesPbModule };

export type ReadReq = StreamsPbModule.ReadReq;
export type ReadResp = StreamsPbModule.ReadResp;
export type AppendReq = StreamsPbModule.AppendReq;
export type AppendResp = StreamsPbModule.AppendResp;
export type BatchAppendReq = StreamsPbModule.BatchAppendReq;
export type BatchAppendResp = StreamsPbModule.BatchAppendResp;
export type TombstoneReq = StreamsPbModule.TombstoneReq;
export type TombstoneResp = StreamsPbModule.TombstoneResp;
