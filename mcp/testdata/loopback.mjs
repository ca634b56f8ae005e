// Preloaded (node --import) into Node programs that listen on every
// interface with no option to choose (server-everything's app.listen(PORT),
// the conformance suite's app.listen(0)): a listen() given only a port
// binds 127.0.0.1 instead, so rein's tests never open a port beyond
// loopback.
//
// Binding a named host normally resolves it asynchronously, which would
// break callers that read server.address() right after listen(); the
// resolution of the literal 127.0.0.1 is therefore answered synchronously,
// keeping listen() as synchronous as it was without a host.
import net from 'node:net';
import dns from 'node:dns';

const LOOPBACK = '127.0.0.1';

const lookup = dns.lookup;
dns.lookup = function (hostname, options, callback) {
  if (hostname === LOOPBACK) {
    const cb = typeof options === 'function' ? options : callback;
    const all = typeof options === 'object' && options !== null && options.all;
    if (all) cb(null, [{ address: LOOPBACK, family: 4 }]);
    else cb(null, LOOPBACK, 4);
    return {};
  }
  return lookup.apply(this, arguments);
};

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  if (first !== null && typeof first === 'object' && !Array.isArray(first)) {
    if (first.path === undefined && first.fd === undefined && first.handle === undefined && first._handle === undefined) {
      args[0] = { ...first, host: LOOPBACK };
    }
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (typeof args[1] === 'string') args[1] = LOOPBACK;
    else args.splice(1, 0, LOOPBACK);
  }
  return listen.apply(this, args);
};
