#include "results/sink.hpp"

#include <exception>

namespace moesweep {

void ListenerSet::push(std::unique_ptr<RunListener> listener) {
  listeners_.push_back(listener.get());
  owned_.push_back(std::move(listener));
}
void ListenerSet::push(RunListener* listener) {
  listeners_.push_back(listener);
}

void ListenerSet::begin(const RunMeta& meta) {
  for (RunListener* l : listeners_) l->begin(meta);
}
void ListenerSet::resumed(const std::vector<Record>& earlier) {
  for (RunListener* l : listeners_) l->resumed(earlier);
}
void ListenerSet::note(const std::string& message) {
  for (RunListener* l : listeners_) l->note(message);
}
void ListenerSet::model(const nlohmann::json& facts) {
  for (RunListener* l : listeners_) l->model(facts);
}
void ListenerSet::sample(const SampleEvent& sample) {
  for (RunListener* l : listeners_) l->sample(sample);
}

void ListenerSet::token_call(const TokenCallEvent& call) {
  for (RunListener* l : listeners_) l->token_call(call);
}
void ListenerSet::point(const Record& record) {
  for (RunListener* l : listeners_) l->point(record);
}

void ListenerSet::request(const nlohmann::json& record) {
  for (RunListener* l : listeners_) l->request(record);
}

void ListenerSet::end(const RunMeta& meta, RunStatus status) {
  std::exception_ptr first;
  for (RunListener* l : listeners_) {
    try {
      l->end(meta, status);
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace moesweep
