// TCP_INFO apart from httplib: <linux/tcp.h> (which has tcpi_bytes_received)
// cannot share a translation unit with <netinet/tcp.h>.
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>

#include "serve/http_exchange.hpp"

namespace moesweep {

unsigned long long socket_bytes_received(int fd) {
  if (fd < 0) return 0;
  tcp_info info{};
  socklen_t len = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return 0;
  if (len < offsetof(tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received) return 0;
  return info.tcpi_bytes_received;
}

}  // namespace moesweep
