// A least-recently-used cache keyed by a graph's input shapes: plans (and executables built from
// them) are made once per shape set and reused; the oldest entry goes when capacity is reached.
#pragma once
#include <cstddef>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/error.h"
#include "plan/plan.h"

namespace vx {

template <class T>
class ShapeLruCache {
 public:
  using Key = std::map<std::string, Shape>;

  explicit ShapeLruCache(size_t capacity = 8) : capacity_(capacity) {
    VX_CHECK(capacity >= 1, InvalidArgument, "cache capacity must be at least 1");
  }

  // The entry for these shapes (now the most recently used), or null.
  std::shared_ptr<T> find(const Key& key) {
    auto it = index_.find(shape_key(key));
    if (it == index_.end()) return nullptr;
    entries_.splice(entries_.begin(), entries_, it->second);
    return it->second->second;
  }

  // The cached entry, or make() stored (evicting the least recently used when full).
  template <class Make>
  std::shared_ptr<T> get_or_create(const Key& key, Make&& make) {
    if (auto hit = find(key)) {
      ++hits_;
      return hit;
    }
    ++misses_;
    std::shared_ptr<T> value = make();
    insert(key, value);
    return value;
  }

  void insert(const Key& key, std::shared_ptr<T> value) {
    std::string k = shape_key(key);
    auto it = index_.find(k);
    if (it != index_.end()) {
      entries_.erase(it->second);
      index_.erase(it);
    }
    entries_.emplace_front(k, std::move(value));
    index_[k] = entries_.begin();
    while (entries_.size() > capacity_) {
      index_.erase(entries_.back().first);
      entries_.pop_back();
    }
  }

  bool contains(const Key& key) const { return index_.count(shape_key(key)) != 0; }
  size_t size() const { return entries_.size(); }
  size_t capacity() const { return capacity_; }
  size_t hits() const { return hits_; }
  size_t misses() const { return misses_; }
  void clear() {
    entries_.clear();
    index_.clear();
  }

 private:
  using Entry = std::pair<std::string, std::shared_ptr<T>>;
  size_t capacity_;
  std::list<Entry> entries_;  // most recently used first
  std::unordered_map<std::string, typename std::list<Entry>::iterator> index_;
  size_t hits_ = 0, misses_ = 0;
};

using PlanCache = ShapeLruCache<const Plan>;

}  // namespace vx
