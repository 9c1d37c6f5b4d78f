"""The Lua scripts a `RedisStore` runs: each read-modify-write is one atomic step on the server.

Times come from the Redis server's clock (`TIME`), so replicas whose clocks differ agree.

Example:
    >>> "TIME" in TOKEN_BUCKET
    True
"""

from __future__ import annotations

NOW_MS = "local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"

TOKEN_BUCKET = (
    NOW_MS
    + """
-- KEYS[1] bucket; ARGV rate (per s), burst. Returns the seconds to wait ("0" when granted).
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then tokens = burst; at = now end
tokens = math.min(burst, tokens + math.max(0, now - at) * rate / 1000)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = (1 - tokens) / rate end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return tostring(wait)
"""
)

LEASE_ACQUIRE = (
    NOW_MS
    + """
-- KEYS[1] pool (holder -> expiry ms); ARGV size, lease ms, holder. 1 if a lease was granted.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
  return 1
end
return 0
"""
)

LEASE_RENEW = (
    NOW_MS
    + """
-- KEYS[1] pool; ARGV lease ms, holder. Pushes the holder's expiry out; a lease lost meanwhile
-- (Redis restarted empty, an outage longer than the lease) is taken again, past the size if need
-- be: the call is running, so it counts until it ends.
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) * 2)
return 1
"""
)

CIRCUIT_ADMIT = (
    NOW_MS
    + """
-- KEYS[1] circuit hash, KEYS[2] probe flag; ARGV probe lease ms, the admission's token.
-- {"closed", failures} | {"open", ms left} | {"probe", 0} | {"probing", 0}
local s = redis.call('HMGET', KEYS[1], 'state', 'until', 'failures')
if s[1] ~= 'open' then return {'closed', tonumber(s[3]) or 0} end
local left = tonumber(s[2]) - now
if left > 0 then return {'open', left} end
if redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[1]) then return {'probe', 0} end
return {'probing', 0}
"""
)

PROBE_UNDO = """
-- KEYS[1] probe flag; ARGV the token of an admission given up on. Drops the flag if it took it.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

CIRCUIT_RECORD = (
    NOW_MS
    + """
-- KEYS[1] circuit hash, KEYS[2] probe flag; ARGV ok (1/0), probe (1/0), failures to open, open ms.
if ARGV[2] == '1' then redis.call('DEL', KEYS[2]) end
if ARGV[1] == '1' then
  redis.call('DEL', KEYS[1])
  return 0
end
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
if ARGV[2] == '1' or failures >= tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[1], 'state', 'open', 'until', now + tonumber(ARGV[4]))
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]) * 10 + 60000)
return failures
"""
)

STORE_EVENT = """
-- KEYS[1] sequence, KEYS[2] the event's stream index; ARGV event-key prefix, stream id, payload,
-- random suffix, keep (events per stream), ttl ms. Returns the new event id.
local n = redis.call('INCR', KEYS[1])
local id = n .. '-' .. ARGV[4]
redis.call('SET', ARGV[1] .. id, ARGV[2], 'PX', ARGV[6])
redis.call('ZADD', KEYS[2], n, id .. ' ' .. ARGV[3])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(ARGV[5]) + 1))
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return id
"""

RIGHTS = (
    NOW_MS
    + """
-- KEYS[1] a key of the store's namespace that holds nothing. Writes nothing (the key does not
-- exist), but needs what every script of the store needs: scripting, and writing its keys.
return redis.call('PEXPIRE', KEYS[1], 1)
"""
)
