// In-process building blocks: one build per key under contention; memoized dispatch.
#include <atomic>
#include <latch>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/dispatch_cache.hpp"
#include "runtime/once_map.hpp"

using namespace jitfp8::detail;

TEST_CASE("OnceMap builds each key once while many threads ask", "[concurrency]") {
  OnceMap<int, int> map;
  std::atomic<int> builds{0}, wrong_values{0};  // counted here, checked on this thread (Catch's
  std::vector<std::thread> threads;               // assertions are not thread-safe)
  std::atomic<bool> go{false};
  for (int t = 0; t < 16; ++t)
    threads.emplace_back([&, t] {
      while (!go) std::this_thread::yield();
      for (int i = 0; i < 200; ++i) {
        int key = (i + t) % 10;
        const int& value = map.get(key, [&] {
          ++builds;
          std::this_thread::sleep_for(std::chrono::microseconds(200));
          return key * 3;
        });
        if (value != key * 3) ++wrong_values;
      }
    });
  go = true;
  for (auto& thread : threads) thread.join();
  CHECK(builds == 10);
  CHECK(wrong_values == 0);
}

TEST_CASE("OnceMap forgets failed builds so that a later call retries", "[concurrency]") {
  OnceMap<int, int> map;
  int attempts = 0;
  CHECK_THROWS(map.get(1, [&]() -> int {
    ++attempts;
    throw std::runtime_error("boom");
  }));
  CHECK(map.get(1, [&] { return ++attempts; }) == 2);
  CHECK(map.get(1, [&] { return 99; }) == 2);
}

TEST_CASE("DispatchCache memoizes by the bytes of a POD key", "[concurrency]") {
  struct Key {
    int device;
    long long n, k;
  };
  DispatchCache<Key, int> cache;
  int makes = 0;
  Key a{};
  a.device = 0;
  a.n = 4096;
  a.k = 7168;
  CHECK(cache.get_or_make(a, [&] { return ++makes; }) == 1);
  CHECK(cache.get_or_make(a, [&] { return ++makes; }) == 1);
  Key b = a;
  b.device = 1;
  CHECK(cache.get_or_make(b, [&] { return ++makes; }) == 2);
}

TEST_CASE("DispatchCache reports one insert per key when threads race to make it", "[concurrency]") {
  // Every thread misses and makes a value (they wait for each other inside make); only the
  // first insert is kept, and `inserted` sees that one value once (runtime_stats().stand_ins
  // counted every racing make before, 2026-12-05).
  struct Key {
    int id;
  };
  constexpr int kThreads = 8;
  DispatchCache<Key, int> cache;
  std::atomic<int> makes{0}, inserts{0}, inserted_value{-1};
  std::latch all_made(kThreads);
  std::vector<int> got(kThreads, -1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      got[t] = cache.get_or_make(
          Key{7},
          [&] {
            ++makes;
            all_made.arrive_and_wait();
            return t;
          },
          [&](const int& value) {
            ++inserts;
            inserted_value = value;
          });
    });
  for (std::thread& thread : threads) thread.join();
  CHECK(makes == kThreads);
  CHECK(inserts == 1);
  for (int t = 0; t < kThreads; ++t) CHECK(got[t] == inserted_value);
  // A hit neither makes nor reports.
  CHECK(cache.get_or_make(Key{7}, [] { return -2; }, [&](const int&) { ++inserts; }) == inserted_value);
  CHECK(inserts == 1);
}
