-- Shared by the node-id scripts (prepended to each one).
--
-- Horizons are Unix ns, above 2^53 where Lua numbers lose digits: they stay
-- decimal strings, stored and compared as text, never converted. Tokens and
-- versions come from next_counter, below 2^53.

-- Whether s is a decimal number as these scripts write it.
local function is_number(s)
  return type(s) == 'string' and #s <= 20
    and (s == '0' or string.find(s, '^[1-9]%d*$') ~= nil)
end

-- The fields of hash `key` (false for absent ones), or nil when the key
-- holds another type.
local function fields(key, ...)
  local r = redis.pcall('HMGET', key, ...)
  if r.err then
    return nil
  end
  return r
end

-- The next value of the counter at `key`, as a string: above both its last
-- value and the server's time in microseconds, so that tokens and versions
-- keep increasing after a restart that lost the counter, as long as the
-- server's clock does not go back. nil when the counter is unreadable.
local function next_counter(key)
  local last = redis.pcall('GET', key)
  if type(last) == 'table' then
    return nil
  end
  local n = 0
  if last then
    if not is_number(last) or #last > 16 then
      return nil
    end
    n = tonumber(last)
    if n >= 9007199254740991 then
      return nil
    end
  end
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  if n < now then
    n = now
  end
  local s = string.format('%.0f', n + 1)
  redis.call('SET', key, s)
  return s
end

-- Whether the fields {ns, version} of a fence are both absent (no fence)
-- or a horizon and a version above 0.
local function fence_ok(f)
  if not f[1] and not f[2] then
    return true
  end
  return is_number(f[1]) and is_number(f[2]) and f[2] ~= '0'
end

-- The claim at `key` as {token, ttl}, 'free' when there is none, or nil
-- when the key holds what no lease wrote.
local function claim_at(key)
  if redis.call('EXISTS', key) == 0 then
    return 'free'
  end
  local f = fields(key, 'token', 'ttl')
  if not f or not is_number(f[1]) or not is_number(f[2]) or f[2] == '0' then
    return nil
  end
  return f
end
