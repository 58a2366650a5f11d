// ServerFeatures.GetSupportedMethods: what the double serves, as a 21.10+ node lists it.
import type { ServerUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import { featuresPb, type FeaturesPbModule, type SharedPbModule } from './protos.js';

const STREAMS_SERVICE = 'event_store.client.streams.Streams';
const FEATURES_SERVICE = 'event_store.client.server_features.ServerFeatures';
/** The features ServerFeatures.cs attaches to each method it lists. */
const IMPLEMENTED_METHODS: readonly (readonly [service: string, method: string, features: readonly string[]])[] = [
  [STREAMS_SERVICE, 'Read', ['position', 'events']],
  [STREAMS_SERVICE, 'Append', []],
  [STREAMS_SERVICE, 'BatchAppend', ['deadline_duration']],
  [STREAMS_SERVICE, 'Tombstone', []],
  [FEATURES_SERVICE, 'GetSupportedMethods', []],
];

/** ServerFeatures.cs lists the methods the node serves, with lower-cased names. */
const supportedMethods = (): FeaturesPbModule.SupportedMethods => {
  const result = new featuresPb.SupportedMethods().setEventStoreServerVersion('0.0.0-test-double');
  for (const [service, method, features] of IMPLEMENTED_METHODS) {
    const supported = new featuresPb.SupportedMethod()
      .setServiceName(service.toLowerCase())
      .setMethodName(method.toLowerCase())
      .setFeaturesList([...features]);
    result.addMethods(supported);
  }
  return result;
};

export const handleGetSupportedMethods = (
  _call: ServerUnaryCall<SharedPbModule.Empty, FeaturesPbModule.SupportedMethods>,
  callback: sendUnaryData<FeaturesPbModule.SupportedMethods>,
): void => callback(null, supportedMethods());
