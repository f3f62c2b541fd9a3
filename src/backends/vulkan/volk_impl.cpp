// The one translation unit that holds volk's function pointers (Debian's libvulkan-volk-dev ships the
// implementation as a header-included source). volk loads libvulkan at run time, so no binary links
// the Vulkan loader and a machine without one gets a clear error instead of a failed start.
#define VOLK_IMPLEMENTATION
#include <volk.h>
