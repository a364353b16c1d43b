import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../../../infra/local-stack/stack-log.ts';
import { loadConfig } from '../../../../shared/src/config/config.ts';
import {
  isMongoConnectionString,
  mongoHostsOf,
} from '../../../../shared/src/config/mongo-connection-string.ts';

const REPLICA_SET =
  'mongodb://gw:s3cret@mongo-0.db:27017,mongo-1.db:27017,mongo-2.db/?replicaSet=rs0&w=majority';

describe('MongoDB connection strings', () => {
  it.each([
    'mongodb://127.0.0.1:27018',
    'mongodb://127.0.0.1',
    'mongodb://localhost:27017/gateway',
    REPLICA_SET,
    'mongodb://a:1,b:2?replicaSet=rs0',
    'mongodb://[::1]:27017,[::1]:27018/?replicaSet=rs0',
    'mongodb+srv://gw:pw@cluster0.example.net/?retryWrites=true',
  ])('accepts %s', (value) => {
    expect(isMongoConnectionString(value)).toBe(true);
  });

  it.each([
    'postgres://x',
    'mongodb://',
    'mongodb:///db',
    'mongodb://a,,b',
    'mongodb://a,',
    'mongodb://a:notaport',
    'mongodb://a:99999',
    'mongodb+srv://a.example.net:27017',
    'mongodb+srv://a.example.net,b.example.net',
    'mongodb:/a',
  ])('refuses %s', (value) => {
    expect(isMongoConnectionString(value)).toBe(false);
  });

  it('lets a replica set be configured, and names its hosts without credentials', () => {
    const config = loadConfig({ REDIS_URL: 'redis://127.0.0.1:6390', MONGO_URL: REPLICA_SET });
    expect(config.store).toMatchObject({ kind: 'mongodb', url: REPLICA_SET });
    expect(mongoHostsOf(REPLICA_SET)).toBe('mongo-0.db:27017,mongo-1.db:27017,mongo-2.db');
  });

  it('hides the password of any connection string before the local stack prints it', () => {
    expect(redactUrl(REPLICA_SET)).toBe(
      'mongodb://gw:***@mongo-0.db:27017,mongo-1.db:27017,mongo-2.db/?replicaSet=rs0&w=majority',
    );
    expect(redactUrl('redis://:pw@127.0.0.1:6380/0')).toBe('redis://:***@127.0.0.1:6380/0');
    expect(redactUrl('redis://127.0.0.1:6380')).toBe('redis://127.0.0.1:6380');
  });
});
