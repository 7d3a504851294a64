# SPDX-License-Identifier: MIT
# Debian packages from the project's own build (CPack's DEB generator): `bash scripts/debs.sh`.
# CPack rather than a debian/ directory: the packages are cut from the same install rules that
# `cmake --install` and scripts/check_install.sh use and check, for amd64 and for the arm64
# cross build alike, with no second description of where each file goes. One package per
# install component:
#   libnpukit0     lib   the shared library (soname libnpukit.so.0) and the KohakuTPU presets
#   libnpukit-dev  dev   public headers, libnpukit.so, libnpukit.a, CMake package, pkg-config
#   npukit         cli   the command-line tool and the documentation
#   npukit-rknn    rknn  librknnrt.so (the rknn_matmul_* compatible layer) in
#                        /usr/lib/<triplet>/npukit/rknn, off the loader's search path, so it
#                        never shadows a vendor librknnrt.so; its headers and npukit-rknn.pc
#   npukit-sim     sim   the LD_PRELOAD simulator shim and the capture library
# (NPUKIT_DEB is declared in CMakeLists.txt: the install rules read it too)
if(NOT NPUKIT_DEB)
  return()
endif()

set(NPUKIT_DEB_PACKAGES lib libnpukit0 dev libnpukit-dev cli npukit rknn npukit-rknn sim npukit-sim)
# Debian wants /usr/share/doc/PACKAGE/copyright in every package: the MIT licence, in the
# machine-readable format.
file(READ ${CMAKE_CURRENT_SOURCE_DIR}/LICENSE npukit_licence)
string(REGEX MATCH "Copyright \\(c\\) [^\n]*" npukit_copyright_line "${npukit_licence}")
string(REGEX REPLACE "^Copyright \\(c\\) " "" npukit_copyright_holder "${npukit_copyright_line}")
string(REGEX REPLACE "^MIT License\n\n[^\n]*\n\n" "" npukit_licence_body "${npukit_licence}")
string(REGEX REPLACE "\n\n" "\n.\n" npukit_licence_body "${npukit_licence_body}")
string(REGEX REPLACE "\n([^\n])" "\n \\1" npukit_licence_body "${npukit_licence_body}")
set(npukit_copyright
  "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
  "Upstream-Name: npukit\n\n"
  "Files: *\nCopyright: ${npukit_copyright_holder}\nLicense: Expat\n ${npukit_licence_body}")
string(JOIN "" npukit_copyright ${npukit_copyright})
file(WRITE ${CMAKE_BINARY_DIR}/deb/copyright "${npukit_copyright}")

include(CPackComponent)
set(i 0)
list(LENGTH NPUKIT_DEB_PACKAGES n)
while(i LESS n)
  list(GET NPUKIT_DEB_PACKAGES ${i} comp)
  math(EXPR j "${i} + 1")
  list(GET NPUKIT_DEB_PACKAGES ${j} pkg)
  string(TOUPPER ${comp} COMP)
  set(CPACK_DEBIAN_${COMP}_PACKAGE_NAME ${pkg})
  install(FILES ${CMAKE_BINARY_DIR}/deb/copyright DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${pkg}
          COMPONENT ${comp})
  math(EXPR i "${i} + 2")
endwhile()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME npukit)
set(CPACK_PACKAGE_VENDOR "the npukit authors")
set(CPACK_PACKAGE_CONTACT "npukit maintainers <npukit@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL lib dev cli rknn sim)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
# The architecture of what was built, not of the machine that built it (the arm64 cross build).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
endif()
# Library dependencies from the binaries themselves (dpkg-shlibdeps), the packages' own on each
# other from the components.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_RKNN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_SIM_PACKAGE_SECTION devel)
# The static archive links cJSON and xxHash (and OpenBLAS when built with it): the -dev package
# brings their -dev packages, as Libs.private and the CMake targets name them. (libnpukit0's
# libxxhash0 comes from dpkg-shlibdeps.)
set(npukit_dev_depends "libcjson-dev, libxxhash-dev")
if(NPUKIT_HAVE_CBLAS)
  string(APPEND npukit_dev_depends ", libopenblas-dev")
endif()
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${npukit_dev_depends}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "register-level drivers and simulators of the RK3588 NPU and KohakuTPU")
cpack_add_component(lib)
cpack_add_component(dev DEPENDS lib)
cpack_add_component(cli DEPENDS lib)
cpack_add_component(rknn)
cpack_add_component(sim)
# (after cpack_add_component, which would reset them) the first line is the summary
set(CPACK_COMPONENT_LIB_DESCRIPTION
  "npukit runtime library\nnpukit drives the Rockchip RK3588 NPU at the register level (through the\nrknpu or rocket kernel driver) and the KohakuTPU FPGA mesh, and simulates both.\nThis package holds the shared library.")
set(CPACK_COMPONENT_DEV_DESCRIPTION
  "npukit runtime library - development files\nPublic headers, the static library, the CMake package and the pkg-config file\nfor programs that use npukit.")
set(CPACK_COMPONENT_CLI_DESCRIPTION
  "npukit command-line tool\nThe npukit program: RK NPU matmul, benchmarks, programs and the simulator;\nKohakuTPU enumeration, programs and the simulated card server.")
set(CPACK_COMPONENT_RKNN_DESCRIPTION
  "rknn_matmul_* compatible library on npukit\nlibrknnrt.so implementing the rknn_matmul_* interface on npukit's runtime,\ninstalled in a private directory so that it never replaces a vendor copy;\nprograms find it through pkg-config npukit-rknn (which adds an rpath).")
set(CPACK_COMPONENT_SIM_DESCRIPTION
  "npukit simulator shim and capture library\nLD_PRELOAD libraries: librksim_shim.so runs unmodified rknpu programs on the\nsimulator; librkcapture.so records the requests a program makes to the NPU.")
# A stripped copy in the packages (the build keeps its symbols), a shlibs file for the library
# and the ldconfig trigger Debian uses instead of maintainer scripts.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
file(WRITE ${CMAKE_BINARY_DIR}/deb/triggers "activate-noawait ldconfig\n")
set(CPACK_DEBIAN_LIB_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/deb/triggers)
set(CPACK_DEBIAN_LIB_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
