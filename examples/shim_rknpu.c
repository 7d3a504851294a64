/* SPDX-License-Identifier: MIT */
/* A plain rknpu program — only the kernel's uAPI, no npukit calls — that runs unchanged on a
 * board or, under npukit's LD_PRELOAD shim, on the simulator:
 *
 *   cc shim_rknpu.c $(pkg-config --cflags npukit) -o shim_rknpu
 *   LD_PRELOAD=PREFIX/lib/npukit/librksim_shim.so ./shim_rknpu */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <npukit/rknpu_uapi.h>

int main(void)
{
    int fd = open("/dev/dri/card1", O_RDWR);
    if (fd < 0) {
        perror("/dev/dri/card1");
        return 1;
    }
    struct rknpu_action act = {.flags = RKNPU_GET_HW_VERSION};
    struct rknpu_mem_create mc = {.flags = 0, .size = 4096};
    if (ioctl(fd, DRM_IOCTL_RKNPU_ACTION, &act) || ioctl(fd, DRM_IOCTL_RKNPU_MEM_CREATE, &mc)) {
        perror("rknpu ioctl");
        return 1;
    }
    struct rknpu_mem_map mm = {.handle = mc.handle};
    void *p = ioctl(fd, DRM_IOCTL_RKNPU_MEM_MAP, &mm) ? MAP_FAILED
              : mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)mm.offset);
    if (p == MAP_FAILED) {
        perror("rknpu map");
        return 1;
    }
    memset(p, 0x5a, 4096);
    printf("NPU hardware version 0x%08x; a 4 KiB buffer at IOVA 0x%08llx\n", act.value,
           (unsigned long long)mc.dma_addr);
    munmap(p, 4096);
    struct rknpu_mem_destroy md = {.handle = mc.handle};
    ioctl(fd, DRM_IOCTL_RKNPU_MEM_DESTROY, &md);
    close(fd);
    return 0;
}
