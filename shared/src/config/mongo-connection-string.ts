/**
 * MongoDB connection strings: `mongodb://[user:password@]host[:port][,host[:port]…][/database][?options]`
 * (a replica set lists its members, comma-separated), or `mongodb+srv://[user:password@]host[/…]`
 * with one host name and no port (the members come from DNS). WHATWG `new URL` refuses the
 * comma-separated host list, so the hosts are checked one by one.
 */
const SHAPE = /^(mongodb|mongodb\+srv):\/\/(?:[^@/?]*@)?([^/?]+)(?:[/?].*)?$/;

export function isMongoConnectionString(value: string): boolean {
  const match = SHAPE.exec(value);
  if (match === null) return false;
  const [, scheme, hostList = ''] = match;
  const hosts = hostList.split(',');
  if (scheme === 'mongodb+srv' && (hosts.length !== 1 || /:\d*$/.test(hosts[0] ?? ''))) return false;
  return hosts.every(isHostAndPort);
}

function isHostAndPort(host: string): boolean {
  if (host === '') return false;
  try {
    return new URL(`mongodb://${host}`).hostname !== '';
  } catch {
    return false;
  }
}

/** The hosts of a connection string, without its credentials, database and options (for logs). */
export function mongoHostsOf(value: string): string {
  return SHAPE.exec(value)?.[2] ?? '';
}
